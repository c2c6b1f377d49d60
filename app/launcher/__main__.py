"""`python -m autogradviz`: same as the `autogradviz` console script."""

from autogradviz.app.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
