from mt.cli.app import app

app(prog_name="mt")
