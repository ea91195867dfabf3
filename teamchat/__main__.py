"""`python -m teamchat` runs the CLI."""

from teamchat.cli.main import main

main()
