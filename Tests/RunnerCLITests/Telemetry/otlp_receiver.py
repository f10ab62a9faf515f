"""A loopback OTLP/HTTP trace receiver for runner's tests: decodes each POST to /v1/traces
with the official opentelemetry-proto messages and appends one JSON line per span to OUT.

    python otlp_receiver.py PORT_FILE OUT [--silent]

Writes the port it listens on (127.0.0.1, a free one) to PORT_FILE. With --silent it accepts
connections and never answers (a collector that hangs). Runs until killed.
"""

import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

port_file, out_path = sys.argv[1], sys.argv[2]


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with open(out_path, "a") as out:
            for resource_spans in request.resource_spans:
                resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        out.write(json.dumps({
                            "path": self.path,
                            "content_type": self.headers["Content-Type"],
                            "authorization": self.headers.get("Authorization"),
                            "service": resource.get("service.name"),
                            "scope": scope_spans.scope.name,
                            "name": span.name,
                            "trace_id": span.trace_id.hex(),
                            "span_id": span.span_id.hex(),
                            "parent": span.parent_span_id.hex(),
                            "start": span.start_time_unix_nano,
                            "end": span.end_time_unix_nano,
                            "status": span.status.code,
                            "events": [e.name for e in span.events],
                            "attributes": {a.key: value(a.value) for a in span.attributes},
                        }) + "\n")
        response = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(response)))
        self.end_headers()
        self.wfile.write(response)

    def log_message(self, *args):
        pass


if "--silent" in sys.argv:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    with open(port_file + ".tmp", "w") as out:
        out.write(str(listener.getsockname()[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    while True:
        time.sleep(60)
else:
    server = HTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()
