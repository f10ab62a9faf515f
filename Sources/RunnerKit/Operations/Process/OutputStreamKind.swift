/// Which pipe a line came from.
public enum OutputStreamKind: Sendable, Hashable {
  case stdout
  case stderr
}
