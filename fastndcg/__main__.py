from fastndcg.cli._app import main

raise SystemExit(main())
