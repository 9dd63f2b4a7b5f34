import Foundation
import PushMocks
import PushTestSupport
import Testing

/// The tests' own process starter (Foundation's `Process.run` of Swift 6.3.1 can crash).
@Suite struct ChildProcessTests {
    @Test func exitStatusAndSignalAreReportedAsProcessDoes() throws {
        let exits = ChildProcess()
        exits.executableURL = URL(fileURLWithPath: "/bin/sh")
        exits.arguments = ["-c", "exit 3"]
        try exits.run()
        exits.waitUntilExit()
        #expect(exits.terminationStatus == 3)
        #expect(!exits.isRunning)

        let killed = ChildProcess()
        killed.executableURL = URL(fileURLWithPath: "/bin/sleep")
        killed.arguments = ["30"]
        try killed.run()
        #expect(killed.isRunning)
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        #expect(killed.terminationStatus == SIGKILL)
    }

    @Test func outputArrivesAndTheChildInheritsNoOtherDescriptor() throws {
        // A pipe without close-on-exec, as other code in the test process may hold: a child
        // that inherited its writing end would keep the reader from ever seeing the end.
        var stray: [Int32] = [0, 0]
        #expect(pipe(&stray) == 0)
        defer {
            close(stray[0])
            close(stray[1])
        }
        var info = stat()
        #expect(fstat(stray[1], &info) == 0)
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "echo ready; exec sleep 30"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        #expect(String(decoding: output.fileHandleForReading.readChunk(), as: UTF8.self) == "ready\n")
        // The child's descriptors, as the kernel lists them: none is the stray pipe. (The test
        // read the pipe for its end of file before, which answers for every process and
        // descriptor of the machine, not for this child: it failed once in a PostgreSQL pass,
        // without saying who held the pipe.)
        let directory = "/proc/\(child.processIdentifier)/fd"
        let links = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)
        }
        #expect(links.contains("/dev/null"), "the child's descriptors were read: \(links)")
        #expect(!links.contains("pipe:[\(info.st_ino)]"), "the child holds the stray pipe: \(links)")
    }
}
