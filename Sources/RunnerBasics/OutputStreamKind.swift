/// Which pipe a line came from.
package enum OutputStreamKind: Sendable, Hashable {
  case stdout
  case stderr
}
