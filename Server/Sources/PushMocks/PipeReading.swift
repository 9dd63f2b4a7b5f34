import Foundation
#if canImport(Glibc)
import Glibc

private let systemRead = Glibc.read
#else
import Darwin

private let systemRead = Darwin.read
#endif

extension FileHandle {
    /// The next bytes of a pipe, waiting until some arrive; empty at its end (or on an error).
    ///
    /// Unlike `availableData` and `readDataToEndOfFile()`, which stop the whole test process
    /// with a fatal error when a read is interrupted by a signal (EINTR: any child process of
    /// the tests exiting can cause it), an interrupted read is simply tried again.
    public func readChunk(maximum: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, maximum) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything until the end of the pipe, reading as ``readChunk(maximum:)`` does.
    public func readUntilEnd() -> Data {
        var all = Data()
        while true {
            let chunk = readChunk()
            if chunk.isEmpty { return all }
            all.append(chunk)
        }
    }
}
