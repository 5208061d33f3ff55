from fastndcg.cli.app import main

raise SystemExit(main())
