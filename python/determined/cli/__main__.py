import sys

from determined.cli import main

sys.exit(main())
