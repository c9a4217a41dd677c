"""`mt serve`: a LibreTranslate-compatible HTTP service and a web page around one Translator.

limits.py  what a client may ask (sizes, time, rate) and the constant-time key check
requests.py  a /translate body (JSON or form) checked into a TranslateRequest or an ApiError
worker.py  one decoding thread that batches the requests of all clients
info.py    what GET /model says, read from the model directory
app.py     create_app(): the routes, error JSON and the request log
server.py  serve(): socket, uvicorn, clean stop on SIGTERM
web/index.html  the page served at /
"""
