#if canImport(Glibc)
    import Glibc
#endif

extension OwnedFile {
    /// Whether anything is named `name` in this folder (`fstatat`, links not followed): a link that points nowhere
    /// or a file that cannot be opened is there all the same.
    func hasChild(_ name: String) -> Bool {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }
}
