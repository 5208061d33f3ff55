from fastndcg.cli.main import main

raise SystemExit(main())
