import sys

from .course import main

sys.exit(main())
