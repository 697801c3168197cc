import sys

from emukit.cli import main

sys.exit(main())
