#!/usr/bin/env python3
"""A remote cache that misbehaves, for runner's fault tests. Prints its port, then serves on
127.0.0.1 until killed:

  silent        accepts connections and reads, never answers
  die-after N   Bazel's HTTP cache (GET/PUT /cas/, /ac/ in memory) that exits after N
                requests: the server killed in the middle of a run
"""
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import os


def silent():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    def drain(connection):
        while connection.recv(65536):
            pass
        connection.close()

    while True:
        connection, _ = listener.accept()
        threading.Thread(target=drain, args=(connection,), daemon=True).start()


def die_after(limit):
    blobs = {}
    count = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def counted(self):
            with lock:
                count[0] += 1
                if count[0] > limit:
                    os._exit(0)

        def do_GET(self):
            self.counted()
            body = blobs.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def do_PUT(self):
            self.counted()
            blobs[self.path] = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if sys.argv[1] == "silent":
    silent()
else:
    die_after(int(sys.argv[2]))
