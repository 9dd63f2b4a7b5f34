// The dashboard's style sheet (see DashboardAssets.swift).

extension DashboardAssets {
    /// `/dashboard/assets/dashboard.css`.
    static let style = #"""
        /* push-server dashboard. No external fonts or images; works without the mouse. */
        :root {
          --ink: #1d2330; --muted: #5c6577; --line: #d9dee7; --bg: #f4f6f9; --card: #ffffff;
          --accent: #2457c5; --accent-ink: #ffffff; --ok: #137a3f; --ok-bg: #e3f4ea; --bad: #b42318; --bad-bg: #fdecea;
          --wait: #8a5a00; --wait-bg: #fff4db; --focus: #ffbf47;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
          font-size: 15px; line-height: 1.45; color: var(--ink); background: var(--bg);
        }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; }
        a { color: var(--accent); }
        code { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace; font-size: 0.9em; background: #eef1f6; padding: 0.05em 0.3em; border-radius: 4px; }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px #1d2330; border-radius: 3px; }
        .skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: 0.5em 1em; z-index: 10; }
        .skip:focus { left: 1em; top: 0.5em; }
        header.top { background: #1d2330; color: #fff; display: flex; align-items: center; gap: 1.5em; padding: 0 1.5em; flex-wrap: wrap; }
        header.top .brand { font-weight: 700; letter-spacing: 0.02em; padding: 0.9em 0; color: #fff; text-decoration: none; }
        header.top .brand span { color: #9fb6ea; font-weight: 500; }
        nav ul { list-style: none; display: flex; gap: 0.25em; margin: 0; padding: 0; flex-wrap: wrap; }
        nav a { display: block; color: #d7deec; text-decoration: none; padding: 0.95em 0.8em; border-bottom: 3px solid transparent; }
        nav a:hover { color: #fff; }
        nav a[aria-current="page"] { color: #fff; border-bottom-color: #7aa2f7; font-weight: 600; }
        header.top .spacer { flex: 1; }
        main { max-width: 1240px; margin: 0 auto; padding: 1.5em; }
        main:focus { outline: none; }
        h1 { font-size: 1.6em; margin: 0.2em 0 0.2em; }
        h2 { font-size: 1.15em; margin: 0 0 0.6em; }
        .lede { color: var(--muted); margin: 0 0 1.2em; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.2em 1.4em; margin: 1.2em 0; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); }
        .card.narrow { max-width: 34em; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14em, 1fr)); gap: 0 1.2em; }
        .field { margin: 0 0 0.9em; display: flex; flex-direction: column; gap: 0.25em; }
        .field label { font-weight: 600; font-size: 0.92em; }
        .hint { margin: 0; color: var(--muted); font-size: 0.85em; }
        input, select, textarea { font: inherit; color: inherit; border: 1px solid #b9c1cf; border-radius: 6px; padding: 0.45em 0.6em; background: #fff; max-width: 100%; }
        textarea { width: 100%; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.88em; }
        input[aria-invalid="true"] { border-color: var(--bad); }
        input[type="checkbox"] { width: 1.05em; height: 1.05em; vertical-align: -0.15em; }
        input[type="file"] { border: none; padding: 0; }
        .checks { display: flex; gap: 1.5em; margin: 0 0 1em; flex-wrap: wrap; }
        button, .button-link { font: inherit; font-weight: 600; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); border-radius: 6px; padding: 0.5em 1.1em; cursor: pointer; text-decoration: none; display: inline-block; }
        button:hover, .button-link:hover { background: #1b45a3; }
        button.secondary { background: #fff; color: var(--accent); }
        button.secondary:hover { background: #eef3fd; }
        header.top button.quiet { background: transparent; border-color: #56607a; color: #fff; font-weight: 500; padding: 0.35em 0.9em; }
        .app-picker, .inline-form { display: flex; align-items: flex-end; gap: 0.8em; flex-wrap: wrap; margin: 0 0 1em; }
        .app-picker .field, .inline-form .field { margin: 0; }
        .inline-form .hint { position: absolute; left: -999px; }
        .status { min-height: 1.5em; margin: 0.2em 0 0.8em; }
        .status:empty { min-height: 0; margin: 0; }
        .status.ok, .ok { color: var(--ok); }
        .status.error, .form-error { color: var(--bad); font-weight: 600; }
        .warn { color: var(--wait); }
        .form-error { min-height: 1.4em; margin: 0 0 0.8em; }
        .muted { color: var(--muted); }
        .engine { color: var(--muted); margin: 0 0 0.6em; }
        .table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin: 0 0 1.2em; }
        table { border-collapse: collapse; width: 100%; font-size: 0.93em; }
        caption { text-align: left; padding: 0.7em 1em; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--line); }
        th, td { text-align: left; padding: 0.55em 1em; border-bottom: 1px solid #edf0f4; vertical-align: top; }
        thead th { background: #f8f9fb; font-size: 0.85em; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); white-space: nowrap; }
        tbody tr:last-child th, tbody tr:last-child td { border-bottom: none; }
        tbody th { font-weight: 600; }
        td.links a { margin-right: 0.9em; }
        .reason { color: var(--bad); font-size: 0.9em; }
        td.reason { font-size: 0.93em; }
        .badge { display: inline-block; padding: 0.1em 0.55em; border-radius: 999px; font-size: 0.8em; font-weight: 600; background: #eef1f6; color: var(--ink); white-space: nowrap; }
        .badge.ok { background: var(--ok-bg); color: var(--ok); }
        .badge.bad { background: var(--bad-bg); color: var(--bad); }
        .badge.wait { background: var(--wait-bg); color: var(--wait); }
        .badge.prod { background: #e7edfb; color: #1b45a3; }
        .badge.sandbox { background: #f1e9fb; color: #6b3fa0; }
        .badge.type { background: #1d2330; color: #fff; }
        .badge.muted-badge { color: var(--muted); }
        .user { margin: 0 0 1.4em; }
        .user-head { display: flex; align-items: center; justify-content: space-between; gap: 1em; margin: 0 0 0.5em; }
        .user-head h2 { margin: 0; }
        .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(18em, 1fr)); gap: 1.2em; }
        .cards .card { margin: 0; }
        .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(8em, 1fr)); gap: 1em; }
        .stat-value { font-size: 1.7em; font-weight: 700; font-variant-numeric: tabular-nums; }
        .stat-label { color: var(--muted); font-size: 0.88em; }
        .summary { font-weight: 600; }
        h3 { font-size: 1em; margin: 1em 0 0.4em; }
        .field-error { margin: 0; color: var(--bad); font-weight: 600; font-size: 0.88em; }
        .field-error:empty { display: none; }
        #texts-add-error { margin: -0.5em 0 1em; }
        .add-language { display: flex; align-items: flex-end; gap: 0.8em; margin: 0 0 0 1.5em; }
        .add-language .field { margin: 0; }
        .actions { display: flex; gap: 0.8em; flex-wrap: wrap; margin: 0 0 1em; }
        button:disabled { opacity: 0.5; cursor: not-allowed; }
        .preview { border: 1px solid var(--line); border-radius: 8px; background: #f8f9fb; padding: 0.4em 1em; }
        .preview.stale { opacity: 0.55; }
        .preview-row { padding: 0.35em 0; border-bottom: 1px solid #edf0f4; }
        .preview-row:last-child { border-bottom: none; }
        .preview-name { display: inline-block; min-width: 9em; color: var(--muted); font-size: 0.88em; }
        .preview-text { font-weight: 600; margin: 0 0.4em; }
        .preview-keys { font-size: 0.85em; }
        .history { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.2em; align-items: start; }
        .history .card { margin: 0; }
        @media (max-width: 980px) { .history { grid-template-columns: minmax(0, 1fr); } }
        #pushes-more { margin: 0 0 1.2em; }
        #pushes-error:empty { display: none; }
        .error-code { font-weight: 500; }
        button.small { padding: 0.2em 0.8em; font-size: 0.88em; }
        tr.selected th, tr.selected td { background: #eef3fd; }
        button[aria-pressed="true"] { background: var(--accent); color: var(--accent-ink); }
        .trace h2 time { font-weight: 500; }
        dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em; margin: 0 0 0.8em; font-size: 0.92em; }
        dl.meta dt { color: var(--muted); }
        dl.meta dd { margin: 0; overflow-wrap: anywhere; }
        .timeline { list-style: none; margin: 0 0 0.6em 0.5em; padding: 0 0 0 1.2em; border-left: 2px solid var(--line); }
        .timeline li { position: relative; padding: 0 0 0.9em 0.2em; }
        .timeline li:last-child { padding-bottom: 0.2em; }
        .timeline li::before { content: ""; position: absolute; left: calc(-1.2em - 8px); top: 0.3em; width: 10px; height: 10px; border-radius: 50%; background: var(--accent); border: 2px solid var(--card); }
        .timeline li.stopped::before { background: var(--bad); }
        .step-name { font-weight: 700; }
        .step-time { color: var(--muted); margin-left: 0.6em; font-variant-numeric: tabular-nums; }
        .offset { display: inline-block; margin-left: 0.4em; padding: 0 0.45em; border-radius: 999px; background: #eef1f6; color: var(--ink); font-size: 0.85em; }
        .step-detail { margin: 0.15em 0 0; font-size: 0.92em; overflow-wrap: anywhere; }
        .stop-reason { margin: 0.35em 0 0; padding: 0.3em 0.6em; border-radius: 6px; background: var(--bad-bg); color: var(--bad); font-weight: 700; }
        .rule-note { margin: 0.25em 0 0; color: var(--muted); font-style: italic; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(24em, 1fr)); gap: 1.2em; }
        .chart-figure { margin: 0; }
        .chart-figure figcaption { font-weight: 600; margin: 0 0 0.4em; }
        svg.chart { display: block; width: 100%; height: auto; background: #f8f9fb; border: 1px solid var(--line); border-radius: 8px; }
        svg.chart .bar { fill: var(--accent); }
        svg.chart .axis { fill: var(--muted); font-size: 11px; }
        svg.chart .grid-line { stroke: #e3e7ee; stroke-dasharray: 3 3; }
        svg.chart .base-line { stroke: #b9c1cf; }
        .seg-delivered { fill: var(--ok); background: var(--ok); }
        .seg-failed { fill: var(--bad); background: var(--bad); }
        .seg-expired { fill: #c27803; background: #c27803; }
        .seg-skipped { fill: #8d96a8; background: #8d96a8; }
        .seg-inFlight { fill: #7aa2f7; background: #7aa2f7; }
        .chart-total { margin: 0.5em 0 0; }
        .legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; margin: 0.5em 0 0; padding: 0; }
        .swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 0.35em; vertical-align: -0.05em; }
        footer { color: var(--muted); font-size: 0.85em; text-align: center; padding: 1em; }
        @media (prefers-reduced-motion: no-preference) { a, button { transition: background 0.1s; } }
        """#
}
