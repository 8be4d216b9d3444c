from navtui.cli import main

raise SystemExit(main())
