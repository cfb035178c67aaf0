from pseudoclaude.cli import main

main()
