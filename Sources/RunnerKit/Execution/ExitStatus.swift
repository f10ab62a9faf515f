/// runner's exit codes, documented in the README.
public enum ExitStatus {
  public static let success: Int32 = 0
  public static let taskFailed: Int32 = 1
  public static let usage: Int32 = 2
  public static let interrupted: Int32 = 130
  public static let terminated: Int32 = 143
}
