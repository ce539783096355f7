import Foundation

/// The system's words for why a file could not be read or written (`No such file or
/// directory`, `Permission denied`, `Is a directory`), from the error Foundation threw.
///
/// Foundation wraps the system's error in its own (`The file "x" couldn't be opened`);
/// messages name the file themselves and add only this reason:
/// `cannot read "contexts/a.mappings": Permission denied`.
enum FileError {
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        if error.domain == NSCocoaErrorDomain,
            [CocoaError.fileNoSuchFile.rawValue, CocoaError.fileReadNoSuchFile.rawValue].contains(error.code)
        {
            return String(cString: strerror(ENOENT))
        }
        return error.localizedDescription
    }
}
