import Foundation
import PushMocks
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
        defer { close(stray[0]) }
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
        close(stray[1])
        // Non-blocking: 0 is the end of file (no writer left); -1 (EAGAIN) means a writer
        // remains, which can only be the child.
        #expect(fcntl(stray[0], F_SETFL, O_NONBLOCK) == 0)
        var byte: UInt8 = 0
        #expect(read(stray[0], &byte, 1) == 0, "the child holds the stray pipe open")
    }
}
