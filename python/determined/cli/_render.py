"""Output as Determined's CLI prints it: tables in tabulate's "presto" layout, CSV (--csv) and
JSON (--json). Standard library only."""

import csv
import datetime
import json
import numbers
import sys


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime.datetime):
        return format_time(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=4, sort_keys=True)
    return str(value)


def _numeric(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def table(headers, rows, out=None):
    """A table as tabulate's "presto" format lays it out: ` a | b` rows under a `---+---` rule;
    numbers right-aligned, text left-aligned, a multi-line cell spread over several lines."""
    out = out or sys.stdout
    cells = [[_cell(v).split("\n") for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, lines in enumerate(row):
            widths[i] = max(widths[i], *(len(line) for line in lines))
    out.write(" " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    out.write("-" + "-+-".join("-" * w for w in widths) + "-\n")
    for row, values in zip(cells, rows):
        for k in range(max((len(lines) for lines in row), default=1)):
            parts = []
            for i, lines in enumerate(row):
                text = lines[k] if k < len(lines) else ""
                parts.append(text.rjust(widths[i]) if _numeric(values[i]) else text.ljust(widths[i]))
            out.write(" " + " | ".join(parts).rstrip() + "\n")


def csv_rows(headers, rows, out=None):
    writer = csv.writer(out or sys.stdout, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else
                         ("" if v is None else (format_time(v) if isinstance(v, datetime.datetime) else v))
                         for v in row])


def table_or_csv(headers, rows, as_csv, out=None):
    (csv_rows if as_csv else table)(headers, rows, out)


def print_json(value, out=None):
    (out or sys.stdout).write(json.dumps(value, indent=4, sort_keys=True, default=str) + "\n")


def format_time(value):
    """A time as Determined's CLI prints it: UTC, to the second (`2024-05-01 12:00:00+0000`)."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        value = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    elif isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S%z")


def format_percent(fraction):
    return None if fraction is None else f"{100 * float(fraction):.1f}%"
