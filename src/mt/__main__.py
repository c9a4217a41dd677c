from mt.cli import app

app(prog_name="mt")
