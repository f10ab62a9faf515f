/// `1.23s`, `250ms`, `2m05s`: short and readable.
package func formatDuration(_ duration: Duration) -> String {
  let milliseconds =
    Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
  if milliseconds < 1000 { return "\(milliseconds)ms" }
  if milliseconds < 60_000 {
    let hundredths = milliseconds / 10
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)s"
  }
  let seconds = milliseconds / 1000
  return "\(seconds / 60)m\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)s"
}
