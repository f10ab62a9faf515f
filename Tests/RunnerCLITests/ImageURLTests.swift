import Foundation
import TestSupport
import Testing

/// `load:` from a URL through the binary: fetched on runner's own HTTP client, saved as
/// written, and an HTTP error fails the task with its status.
@Suite struct ImageURLTests {
  @Test func loadsFromALoopbackURLAndReportsAMissingOne() throws {
    let png = try Data(
      contentsOf: BinaryRunner.packageRoot.appendingPathComponent("Tests/ImagingTests/Fixtures/rgb8.png"))
    let server = try RouteServer(routes: [
      "/served.png": .init(status: 200, body: Array(png)),
      "/moved.png": .init(status: 301, headers: ["Location: /served.png"]),
    ])
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-url-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let yaml = """
      tasks:
        fetch: {image: [{load: "\(server.baseURL)/moved.png"}, grayscale, {save: got.png}]}
        missing: {image: [{load: "\(server.baseURL)/nope.png"}]}
      """
    try Data(yaml.utf8).write(to: directory.appendingPathComponent("tasks.yml"))
    let result = try BinaryRunner.run(["--keep-going", "fetch", "missing"], in: directory, deadline: .seconds(60))
    #expect(result.status == 1, "\(result.stderr)")
    #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("got.png").path))
    #expect(result.stdout.contains("✓ fetch") || result.stderr.contains("✓ fetch"), "\(result.stdout)\(result.stderr)")
    let all = result.stdout + result.stderr
    #expect(all.contains("fetching '\(server.baseURL)/nope.png' failed with http status 404"), "\(all)")
  }
}
