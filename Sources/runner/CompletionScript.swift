import ArgumentParser

/// `runner --generate-completion-script SHELL`: swift-argument-parser's script, mended where
/// real shells showed it wrong.
///
/// - zsh: the script declared the positional arguments' rest spec (`*:arguments:…`) and a
///   second one for the implicit `help` subcommand (`(-)*:: :->arg`); `_arguments` printed
///   `doubled rest argument definition` on every Tab. runner has no subcommand to complete.
/// - bash: `:` and `=` are in `COMP_WORDBREAKS`, so `runner web:s<Tab>` completed `s` alone
///   (to `web:setup`, no task) and `mode=<Tab>` gave `mode=mode=debug`. A wrapper completes
///   the whole word and hands back what follows its last `:` or `=` (what bash replaces), as
///   bash-completion's `__ltrim_colon_completions` does. And the task names and params the
///   task file offers went through `compgen -W`, which expands `$(…)` in them: a task file
///   could run a command on Tab. They are now matched as plain text.
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
      script = script.replacing(
        "__runner_add_completions -W \"$(__runner_custom_complete",
        with: "__runner_add_plain_completions \"$(__runner_custom_complete")
    case .fish:
      script = script.replacing("(__runner_tokens -tC)", with: "(string length -- \"$(commandline -ct)\")")
    default:
      break
    }
    return script
  }

  static let bashColonWrapper = """
    # What the task file offers (task names, NAME=value params), matched as plain text: through
    # `compgen -W` a name holding `$(...)` would run.
    __runner_add_plain_completions() {
        local completion
        while IFS='' read -r completion; do
            [[ -n "${completion}" && "${completion}" == "${cur}"* ]] && COMPREPLY+=("${completion}")
        done <<< "${1}"
    }

    # bash cuts `web:s` into `web`, `:` and `s`, and `mode=d` at the `=` (both are in
    # COMP_WORDBREAKS): complete the whole word, then hand back what follows its last ':' or
    # '=', the part bash replaces.
    _runner_whole_word() {
        local line="${COMP_LINE:0:COMP_POINT}"
        local word="${line##*[[:space:]]}"
        if [[ "${word}" != *[:=]* || "${word}" == -* ]]; then
            _runner "$@"
            return
        fi
        local -a words
        read -r -a words <<< "${line}"
        [[ "${line}" == *[[:space:]] ]] && words+=("")
        local COMP_WORDS=("${words[@]}")
        local COMP_CWORD=$((${#words[@]} - 1))
        _runner "${1}" "${word}" "${words[COMP_CWORD - 1]}"
        local prefix="${word%"${word##*[:=]}"}"
        local -a trimmed=()
        local reply
        for reply in "${COMPREPLY[@]}"; do trimmed+=("${reply#"${prefix}"}"); done
        COMPREPLY=("${trimmed[@]}")
    }

    complete -o filenames -F _runner_whole_word runner
    """
}
