from hylint.cli import main

main()
