import RunnerBasics
import RunnerCache
import RunnerModel
import RunnerRemote

/// The remote cache of a run, from the command line, `RUNNER_REMOTE_CACHE` /
/// `RUNNER_REMOTE_HEADERS` and the task file's `remote:` section, in that order.
enum RemoteSetup {
  static let defaultTimeout = Duration.seconds(30)

  struct Problem: Error {
    var text: String
  }

  /// The session, nil when no remote cache is named; a problem (exit 2) when the settings are wrong.
  static func session(_ options: RunOptions.Remote, file: TaskFile, environment: [String: String]) -> Result<
    RemoteCacheSession?, Problem
  > {
    let written = file.remote
    let address = options.cache ?? environment["RUNNER_REMOTE_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
    guard let text = address ?? written?.cache else { return .success(nil) }
    let place = address == nil ? written.map { "\($0.location): " } ?? "" : ""
    let endpoint: RemoteEndpoint
    do {
      endpoint = try RemoteEndpoint(parsing: text)
    } catch {
      return .failure(Problem(text: "\(place)remote cache: \(error)"))
    }
    var headers: [(name: String, value: String)] = []
    let lines = (environment["RUNNER_REMOTE_HEADERS"] ?? "").split(separator: "\n").map(String.init)
    for line in lines + options.headers where !line.allSatisfy(\.isWhitespace) {
      guard let colon = line.firstIndex(of: ":"), !line[..<colon].isEmpty, !line[..<colon].contains(" ") else {
        // The line may hold a secret: none of it is said.
        return .failure(Problem(text: "a remote header must be 'Name: value' (a name, a colon, the value)"))
      }
      headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmed()))
    }
    var certificates = options.certificateAuthority
    if certificates == nil, let ca = written?.certificateAuthority {
      certificates = ca.hasPrefix("/") ? ca : file.directory + "/" + ca
    }
    let timeout = options.timeout ?? written?.timeout ?? defaultTimeout
    do {
      let cache = try RemoteActionCache.connect(endpoint, headers: headers, trustRoots: certificates, timeout: timeout)
      return .success(RemoteCacheSession(cache, uploads: options.upload ?? written?.upload ?? true))
    } catch {
      return .failure(Problem(text: "\(place)remote cache: \(error)"))
    }
  }
}

extension String {
  fileprivate func trimmed() -> String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
  }
}
