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
    settings.headers =
      parseHeaders(value("OTEL_EXPORTER_OTLP_HEADERS") ?? "")
      + parseHeaders(value("OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? "")
    if let name = value("OTEL_SERVICE_NAME") { settings.serviceName = name }
    if let milliseconds = value("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? value("OTEL_EXPORTER_OTLP_TIMEOUT"),
      let number = Int(milliseconds), number > 0
    {
      settings.timeout = .milliseconds(min(number, 10_000))
    }
    return (settings, nil)
  }

  static func withTracesPath(_ base: String) -> String {
    let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
    return trimmed.hasSuffix("/v1/traces") ? trimmed : trimmed + "/v1/traces"
  }

  /// `name=value,name2=value2`, values percent-encoded (W3C Baggage's format, as the spec says).
  static func parseHeaders(_ text: String) -> [Header] {
    text.split(separator: ",").compactMap { pair in
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      let name = parts[0].trimmingCharacters()
      guard !name.isEmpty else { return nil }
      return Header(name: name, value: percentDecoded(parts[1].trimmingCharacters()))
    }
  }

  static func percentDecoded(_ text: String) -> String {
    var bytes: [UInt8] = []
    var rest = Array(text.utf8)[...]
    while let byte = rest.first {
      rest = rest.dropFirst()
      if byte == UInt8(ascii: "%"), rest.count >= 2,
        let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        rest = rest.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Substring {
  fileprivate func trimmingCharacters() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
