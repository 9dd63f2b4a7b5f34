import Foundation

/// Starting a mock: the mock processes print `PORT <n>` on their first line once listening.
enum MockProcess {
    /// Runs `process` (its stderr discarded) and returns the port of its first line; kills it
    /// and throws when that line does not come.
    static func startAndReadPort(_ process: ChildProcess, name: String) throws -> Int {
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var output = ""
        while !output.contains("\n") {
            let chunk = pipe.fileHandleForReading.readChunk()
            if chunk.isEmpty { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        guard output.hasPrefix("PORT "), let port = Int(output.dropFirst(5).prefix { $0.isNumber }) else {
            kill(process.processIdentifier, SIGKILL)
            throw MockError("\(name) did not start: \(output)")
        }
        return port
    }
}
