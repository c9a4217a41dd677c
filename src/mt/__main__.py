from mt.cli.app import app

if __name__ == "__main__":  # a spawned worker imports this module too: it must not run the app
    app(prog_name="mt")
