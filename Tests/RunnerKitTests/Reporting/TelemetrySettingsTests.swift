import RunnerBasics
import RunnerReporting
import Testing

/// What `OTEL_EXPORTER_OTLP_*` and `TRACEPARENT` mean to runner, as the specifications say.
struct TelemetrySettingsTests {
  @Test func theEndpointAndHeadersFollowTheSpecification() {
    let resolve = { (environment: [String: String]) in TelemetrySettings.resolve(flag: nil, environment: environment) }
    #expect(resolve([:]).0 == nil)
    #expect(resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"]).0?.endpoint == "http://c:4318/v1/traces")
    #expect(
      resolve(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c/x", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://d"]).0?
        .endpoint == "http://c/x")
    let headers = resolve([
      "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,Authorization=Basic%20x",
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "Authorization=Bearer%20y",
    ]).0?.headers
    // The signal's own list replaces the general one.
    #expect(headers == [TelemetrySettings.Header(name: "Authorization", value: "Bearer y")])
    #expect(resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"]).0 == nil)
    #expect(resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_TRACES_EXPORTER": "none"]).0 == nil)
    let grpc = resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
    #expect(grpc.0 == nil && grpc.1?.contains("http/protobuf only") == true)
    #expect(
      resolve(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_TIMEOUT": "500"]).0?.timeout
        == .milliseconds(500))
    #expect(TelemetrySettings.resolve(flag: "http://f", environment: [:]).0?.endpoint == "http://f/v1/traces")
  }

  @Test(arguments: [
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0z",  // flags not hex
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-",  // no flags
    "zz-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // version not hex
    "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // version ff
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",  // 00 has four fields
    "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // zero trace id
    "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  // zero span id
    "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",  // upper case
  ])
  func aMalformedTraceparentStartsATraceOfItsOwn(_ text: String) {
    #expect(TraceContext.parse(text) == nil)
    #expect(TraceContext.start(traceparent: text).parentSpanID == nil)
  }

  @Test func aTraceparentIsJoinedAndEachRunHasSpansOfItsOwn() throws {
    let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    let first = try #require(TraceContext.parse(text))
    let second = try #require(TraceContext.parse(text))
    #expect(TraceContext.hex(first.traceID) == "0af7651916cd43dd8448eb211c80319c")
    #expect(first.parentSpanID.map(TraceContext.hex) == "b7ad6b7169203331" && first.sampled)
    // Two runs under one parent share no span.
    #expect(first.runSpanID != second.runSpanID)
    #expect(first.spanID(task: 0, attempt: 1) != second.spanID(task: 0, attempt: 1))
    #expect(first.spanID(task: 0, attempt: 1) != first.spanID(task: 0, attempt: 2))
    #expect(first.traceparent(task: 3, attempt: 1).hasPrefix("00-0af7651916cd43dd8448eb211c80319c-"))
    #expect(TraceContext.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")?.sampled == false)
    #expect(TraceContext.parse("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-later") != nil)
  }
}
