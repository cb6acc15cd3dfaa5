"""`python -m bot.cli` runs the `opsmemory` command."""

import sys

from bot.cli import main

sys.exit(main())
