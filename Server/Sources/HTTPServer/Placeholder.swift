// The HTTPServer target is filled in by the next commits of issue 7.
