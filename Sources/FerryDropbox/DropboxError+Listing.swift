import FerryCore

extension DropboxError {
    /// `list_folder/continue` refused the cursor (`ListFolderContinueError.reset`): it expired or the folder
    /// changed too much. List again from `list_folder`.
    public var isCursorReset: Bool {
        code == .pathError && tags.first == "reset"
    }
}
