import sys

from suite.sweep.driver.cli import main

if __name__ == "__main__":
    sys.exit(main())
