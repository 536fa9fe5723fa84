"""``python -m geomech`` runs the command-line interface."""

from geomech.cli import main

raise SystemExit(main())
