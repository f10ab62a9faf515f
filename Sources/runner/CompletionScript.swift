import ArgumentParser

/// `runner --generate-completion-script SHELL`: swift-argument-parser's script, mended where
/// real shells showed it wrong.
///
/// - zsh: the script declared the positional arguments' rest spec (`*:arguments:…`) and a
///   second one for the implicit `help` subcommand (`(-)*:: :->arg`); `_arguments` printed
///   `doubled rest argument definition` on every Tab. runner has no subcommand to complete.
/// - bash: `:` is in `COMP_WORDBREAKS`, so `runner web:s<Tab>` completed `s` alone (to
///   `web:setup`, no task). A wrapper completes the whole word and hands back what follows its
///   last `:` (what bash replaces), as bash-completion's `__ltrim_colon_completions` does.
/// - fish: the cursor's offset in the current word came from `commandline -tC`, which gives
///   nothing in fish 3.6, so the word vanished from the arguments and every completion failed
///   with "Invalid state while parsing": the offset is the length of `commandline -ct`.
enum CompletionScript {
  static func text(for name: String) -> String? {
    guard let shell = CompletionShell(rawValue: name) else { return nil }
    var script = RunnerCommand.completionScript(for: shell)
    switch shell {
    case .zsh:
      script = script.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.contains("'(-): :->command'") && !$0.contains("'(-)*:: :->arg'") }
        .joined(separator: "\n")
    case .bash:
      script = script.replacing("complete -o filenames -F _runner runner", with: Self.bashColonWrapper)
    case .fish:
      script = script.replacing("(__runner_tokens -tC)", with: "(string length -- \"$(commandline -ct)\")")
    default:
      break
    }
    return script
  }

  static let bashColonWrapper = """
    # bash cuts `web:s` into `web`, `:` and `s` (':' is in COMP_WORDBREAKS): complete the whole
    # word, then hand back what follows its last ':', the part bash replaces.
    _runner_whole_word() {
        local line="${COMP_LINE:0:COMP_POINT}"
        local word="${line##*[[:space:]]}"
        if [[ "${word}" != *:* || "${word}" == -* ]]; then
            _runner "$@"
            return
        fi
        local -a words
        read -r -a words <<< "${line}"
        [[ "${line}" == *[[:space:]] ]] && words+=("")
        local COMP_WORDS=("${words[@]}")
        local COMP_CWORD=$((${#words[@]} - 1))
        _runner "${1}" "${word}" "${words[COMP_CWORD - 1]}"
        local prefix="${word%:*}:"
        local -a trimmed=()
        local reply
        for reply in "${COMPREPLY[@]}"; do trimmed+=("${reply#"${prefix}"}"); done
        COMPREPLY=("${trimmed[@]}")
    }

    complete -o filenames -F _runner_whole_word runner
    """
}
