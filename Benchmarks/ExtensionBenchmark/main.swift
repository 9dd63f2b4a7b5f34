print("ExtensionBenchmark")
