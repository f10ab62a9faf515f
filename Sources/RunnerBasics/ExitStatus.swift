/// runner's exit codes, documented in the README.
package enum ExitStatus {
  package static let success: Int32 = 0
  package static let taskFailed: Int32 = 1
  package static let usage: Int32 = 2
  package static let interrupted: Int32 = 130
  package static let terminated: Int32 = 143
}
