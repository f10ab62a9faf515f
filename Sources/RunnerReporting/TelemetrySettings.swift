import RunnerBasics

/// Where a run's OpenTelemetry trace goes (OTLP over HTTP, protobuf), from `--otel URL` or
/// the standard variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL),
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` added), `OTEL_EXPORTER_OTLP_HEADERS` (and
/// `…_TRACES_HEADERS`), `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds), `OTEL_SERVICE_NAME`.
/// `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off.
public struct TelemetrySettings: Sendable, Equatable {
  /// The URL spans are POSTed to.
  public var endpoint: String
  public var headers: [Header] = []
  public var serviceName = "runner"
  /// The longest the export may hold up the end of the run.
  public var timeout: Duration = .seconds(2)

  public struct Header: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  public init(endpoint: String) {
    self.endpoint = endpoint
  }

  /// The settings `--otel URL` (a base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT`) and the
  /// environment give; nil when neither names a collector, or tracing is turned off.
  /// - Returns: also a problem to warn of once (a protocol runner does not speak).
  public static func resolve(flag: String?, environment: [String: String]) -> (TelemetrySettings?, String?) {
    let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    if value("OTEL_SDK_DISABLED")?.lowercased() == "true" || value("OTEL_TRACES_EXPORTER") == "none" {
      return (nil, nil)
    }
    let endpoint: String
    if let flag {
      endpoint = withTracesPath(flag)
    } else if let traces = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
      endpoint = traces
    } else if let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
      endpoint = withTracesPath(base)
    } else {
      return (nil, nil)
    }
    let protocolName = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL")
    if let protocolName, protocolName != "http/protobuf" {
      return (nil, "OpenTelemetry: runner sends traces as http/protobuf only, not \(protocolName): none sent")
    }
    var settings = TelemetrySettings(endpoint: endpoint)
    // The signal's own headers replace the general ones.
    settings.headers = parseHeaders(
      value("OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? value("OTEL_EXPORTER_OTLP_HEADERS") ?? "")
    if let name = value("OTEL_SERVICE_NAME") { settings.serviceName = name }
    if let milliseconds = value("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? value("OTEL_EXPORTER_OTLP_TIMEOUT"),
      let number = Int(milliseconds), number > 0
    {
      settings.timeout = .milliseconds(min(number, 10_000))
    }
    return (settings, nil)
  }

  /// The base URL with the signal's path, as the specification says: always appended.
  static func withTracesPath(_ base: String) -> String {
    (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
  }

  /// `name=value,name2=value2`, values percent-encoded (W3C Baggage's format, as the spec says).
  static func parseHeaders(_ text: String) -> [Header] {
    text.split(separator: ",").compactMap { pair in
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      let name = parts[0].trimmingCharacters()
      guard !name.isEmpty else { return nil }
      return Header(name: name, value: PercentEncoding.decoded(parts[1].trimmingCharacters()))
    }
  }
}

extension Substring {
  fileprivate func trimmingCharacters() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
