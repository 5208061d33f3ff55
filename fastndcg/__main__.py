from fastndcg._cli import main

raise SystemExit(main())
