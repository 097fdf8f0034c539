import ArgumentParser

/// `ferry account …`: the accounts jobs name in `dropbox:ACCOUNT:/path` and `flickr:USER`.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Add, link, list, sign out and remove provider accounts.",
        discussion: """
            Secrets (refresh tokens, app secrets, API keys, authorization codes) are read from files or standard \
            input, never from the command line, and stored encrypted with FERRY_SECRET_KEY (or the file named by \
            FERRY_SECRET_KEY_FILE): 32 random bytes, base64. Make one with: head -c 32 /dev/urandom | base64

            Examples:
              ferry account add photos --provider dropbox --app-key KEY \\
                  --refresh-token-file token.txt
              ferry account login photos    # OAuth with PKCE: open the URL, paste the code
              ferry account list
              ferry account revoke photos   # sign out: revoke, forget the tokens
              ferry account rekey --old-key-file old.key   # re-seal under FERRY_SECRET_KEY
            """,
        subcommands: [
            AccountAdd.self, AccountLogin.self, AccountList.self, AccountShow.self, AccountRevoke.self,
            AccountRemove.self, AccountUpdate.self, AccountRekey.self,
        ])
}
