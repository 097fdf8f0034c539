import FerryTestSupport
import Foundation

/// A real bash, zsh or fish with ferry's generated completion script loaded, driven as an operator would drive it.
///
/// Each harness lives in a folder of its own, which is also the shell's `$HOME` (so a name that ran `id>$HOME/pwned`
/// leaves a file there, ``markers``) and its working directory. `ferry` is found on `PATH` in the build's folder, and
/// the completion script is the one that `ferry --generate-completion-script SHELL` prints.
///
/// - ``offered(_:)``: the words the shell offers when TAB is pressed at the end of a line. bash: the script's
///   completion function called as readline calls it (`COMP_WORDS`, `COMP_CWORD`, …); zsh: a completion widget
///   whose `compadd` records the matches it is given; fish: `complete -C` from a key binding of an interactive fish
///   (fish 3's `commandline -C`, which the script calls, answers only there).
/// - ``accepted(_:)``: for each line typed, TAB, then the last argument the command would receive: the shell itself
///   parses and expands the line as it would at Enter (`eval "set -- $LINE"`). zsh and fish and bash run
///   interactively in a pseudo-terminal (zsh's `zpty`, so zsh drives the other two as well).
struct ShellCompletionHarness {
    /// `bash`, `zsh` or `fish`.
    let shell: String
    /// The harness's folder: the completion script, the shell's start-up files, `$HOME`.
    let directory: String
    /// The environment of every shell started.
    let environment: [String: String]

    /// How long one shell may take to answer (a debug ferry starting on a loaded machine is slow).
    static let seconds = 120

    /// The path of `name` on `PATH`; a missing shell is a failure, not a skip: scripts/install-deps.sh installs all three.
    static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        throw TestSupportError("\(name) is not installed (not on PATH): scripts/install-deps.sh installs bash, zsh and fish")
    }

    /// A harness for `shell` completing from `databaseURL`, in a new folder.
    static func make(_ shell: String, databaseURL: String) async throws -> ShellCompletionHarness {
        _ = try executable(shell)
        _ = try executable("zsh")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-shell-\(shell)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let generated = try await FerryProcess.run(["--generate-completion-script", shell])
        guard generated.status == 0 else { throw TestSupportError("--generate-completion-script \(shell): \(generated.stderr)") }
        let files = [
            "ferry.\(shell)": generated.stdout, "complete.bash": completeBash, "drive.zsh": driveZsh, "bashrc": bashrc,
            ".zshrc": zshrc, "init.fish": initFish,
        ]
        for (name, text) in files {
            try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
        }
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("XDG_") || key.hasPrefix("BASH_") || key == "ENV" || key == "ZDOTDIR" {
            environment.removeValue(forKey: key)
        }
        environment.merge(
            [
                "PATH": FerryProcess.binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin"), "HOME": directory,
                "ZDOTDIR": directory, "XDG_CONFIG_HOME": directory + "/.config", "XDG_DATA_HOME": directory + "/.local/share",
                "TERM": "xterm", "FERRY_DATABASE_URL": databaseURL, "FERRY_COMPLETION_TIMEOUT": "60",
                "HARNESS_DIR": directory, "HARNESS_SCRIPT": "\(directory)/ferry.\(shell)",
            ], uniquingKeysWith: { $1 })
        environment.removeValue(forKey: "DATABASE_URL")
        return ShellCompletionHarness(shell: shell, directory: directory, environment: environment)
    }

    /// Files a hostile name's command left in `$HOME` (named `pwned…`).
    var markers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("pwned") }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The words the shell offers for TAB after `words` (as typed, quotes and backslashes included; the last one is
    /// the word being completed), in the shell's order.
    func offered(_ words: [String]) async throws -> [String] {
        if shell == "bash" {
            let result = try await run(
                try Self.executable("bash"), ["--norc", "--noprofile", "\(directory)/complete.bash", "\(directory)/ferry.bash"] + words)
            guard result.status == 0 else { throw TestSupportError("bash completion failed (\(result.status)): \(result.stderr)") }
            return Self.split(result.stdout)
        }
        try await drive(words.joined(separator: " ") + "\u{06}")
        let text = try String(contentsOfFile: "\(directory)/offered", encoding: .utf8)
        // fish's lines are `word<TAB>description`.
        return shell == "fish" ? text.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } : Self.split(text)
    }

    /// For each line typed (ending with a word being completed): TAB, then the last argument the command would get.
    func accepted(_ lines: [String]) async throws -> [String] {
        try await drive(lines.map { $0 + "\t\u{07}" }.joined())
        return Self.split(try String(contentsOfFile: "\(directory)/accepted", encoding: .utf8))
    }

    /// Runs the interactive shell in a pseudo-terminal, types `keys` and then ^T, and waits for the shell to finish.
    private func drive(_ keys: String) async throws {
        try? FileManager.default.removeItem(atPath: "\(directory)/done")
        let command: [String] =
            switch shell {
            case "bash": [try Self.executable("bash"), "--noprofile", "--rcfile", "\(directory)/bashrc", "-i"]
            case "zsh": [try Self.executable("zsh"), "-i"]
            default: [try Self.executable("fish"), "--no-config", "-i", "-C", "source \(directory)/init.fish"]
            }
        let result = try await run(
            try Self.executable("zsh"), ["-f", "\(directory)/drive.zsh", "\(directory)/done", String(Self.seconds), keys + "\u{14}"] + command)
        guard result.status == 0 else { throw TestSupportError("\(shell) in a pseudo-terminal (\(result.status)): \(result.stderr)") }
    }

    private static func split(_ text: String) -> [String] {
        text.split(separator: "\0", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Runs `executable` in the harness's folder and environment; output through files, as ``FerryProcess`` does.
    private func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = "\(directory)/.stdout", err = "\(directory)/.stderr"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return (
            status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }
}

extension ShellCompletionHarness {
    /// `complete.bash SCRIPT WORD…`: sources the script and calls its completion function as readline does for TAB
    /// at the end of `WORD…`; prints COMPREPLY, each word followed by a NUL.
    static let completeBash = #"""
        source "$1" || exit 90
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        function=$(complete -p ferry | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
        [[ -n $function ]] || exit 91
        "$function" ferry "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        ((${#COMPREPLY[@]} == 0)) || printf '%s\0' "${COMPREPLY[@]}"
        """#

    /// `drive.zsh DONE SECONDS KEYS COMMAND…`: runs COMMAND in a pseudo-terminal, waits for its prompt
    /// (`HARNESS-READY`), types KEYS and waits for the file DONE; exits non-zero after SECONDS.
    static let driveZsh = #"""
        zmodload zsh/zpty zsh/datetime || exit 90
        done_file=$1 seconds=$2 keys=$3
        shift 3
        zpty harness "${(j: :)${(q)@}}" || exit 91
        deadline=$((EPOCHREALTIME + seconds))
        seen=''
        while [[ $seen != *HARNESS-READY* ]]; do
            if zpty -rt harness chunk; then seen+=$chunk; else sleep 0.05; fi
            ((EPOCHREALTIME < deadline)) || { print -r -- "no prompt: $seen" >&2; zpty -d harness; exit 92; }
        done
        zpty -w -n harness "$keys"
        while [[ ! -e $done_file ]]; do
            # Read what the shell prints, so that it never blocks on a full terminal.
            zpty -rt harness chunk && seen+=$chunk
            sleep 0.05
            ((EPOCHREALTIME < deadline)) || { print -r -- "no answer: $seen" >&2; zpty -d harness; exit 93; }
        done
        zpty -d harness
        """#

    /// bash's start-up file: TAB is readline's own completion; ^G records the last argument of the line as bash
    /// would pass it and clears the line; ^T ends.
    static let bashrc = #"""
        source "$HARNESS_SCRIPT"
        bind 'set bell-style none'
        bind 'set completion-query-items -1'
        bind 'set page-completions off'
        __harness_accept() {
            eval "set -- $READLINE_LINE"
            printf '%s\0' "${@: -1}" >> "$HARNESS_DIR/accepted.tmp"
            READLINE_LINE='' READLINE_POINT=0
        }
        __harness_finish() {
            touch "$HARNESS_DIR/accepted.tmp" && mv "$HARNESS_DIR/accepted.tmp" "$HARNESS_DIR/accepted"
            : > "$HARNESS_DIR/done"
        }
        bind -x '"\C-g": __harness_accept'
        bind -x '"\C-t": __harness_finish'
        PS1='HARNESS-READY> '
        """#

    /// zsh's start-up file: compinit, the script; ^F completes and records the matches given to compadd, TAB is
    /// zsh's own completion, ^G records the last argument as zsh would pass it, ^T ends.
    static let zshrc = #"""
        autoload -Uz compinit && compinit -u -D
        source "$HARNESS_SCRIPT"
        LISTMAX=100000
        typeset -ga __harness_offered
        compadd() {
            # Calls that only ask (-O, -A) or describe (-D) go through as they are.
            if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi
            local -a __harness_hits
            builtin compadd -O __harness_hits "$@"
            __harness_offered+=("${__harness_hits[@]}")
            builtin compadd "$@"
        }
        __harness_offer() {
            __harness_offered=()
            _main_complete
            print -rn -- "${(pj:\0:)__harness_offered}" > "$HARNESS_DIR/offered"
        }
        __harness_accept() {
            eval "set -- $BUFFER"
            print -rn -- "${@[-1]}"$'\0' >> "$HARNESS_DIR/accepted.tmp"
            BUFFER=''
        }
        __harness_finish() {
            touch "$HARNESS_DIR/accepted.tmp" && mv "$HARNESS_DIR/accepted.tmp" "$HARNESS_DIR/accepted"
            : > "$HARNESS_DIR/done"
        }
        zle -C __harness_offer complete-word __harness_offer
        zle -N __harness_accept
        zle -N __harness_finish
        bindkey '^F' __harness_offer
        bindkey '^G' __harness_accept
        bindkey '^T' __harness_finish
        PS1='HARNESS-READY%% '
        """#

    /// fish's start-up commands: ^F records `complete -C` for the line, TAB is fish's own completion, ^G records the
    /// last argument as fish would pass it, ^T ends.
    static let initFish = #"""
        source $HARNESS_SCRIPT
        function __harness_offer
            complete -C > $HARNESS_DIR/offered
        end
        function __harness_accept
            eval "set -g __harness_words "(commandline)
            printf '%s\0' $__harness_words[-1] >> $HARNESS_DIR/accepted.tmp
            commandline ''
        end
        function __harness_finish
            touch $HARNESS_DIR/accepted.tmp && mv $HARNESS_DIR/accepted.tmp $HARNESS_DIR/accepted
            touch $HARNESS_DIR/done
        end
        bind \cf __harness_offer
        bind \cg __harness_accept
        bind \ct __harness_finish
        function fish_prompt
            printf 'HARNESS-READY> '
        end
        """#
}
