#!/usr/bin/env python3
"""Writes the reference manual's page of the elements: elements.md.in with
each `@ELEMENT name@` line replaced by what GStreamer reports of the element
in the plugin built here: its description, pad templates with their caps,
and its properties (type, default, range or values, when they may be set).

    element_page.py elements.md.in elements.md

GST_PLUGIN_PATH_1_0 names the plugin's folder (docs/reference/meson.build
sets it, with an empty system path and a registry of its own). A named
element that is not in the plugin fails the page: the page documents what
the build has, so a build without an element's dependency cannot build it."""
import re
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

# Properties every GstObject has; gst-inspect lists them, the page does not.
INHERITED = {"name", "parent"}

# gst-launch-1.0 syntax in GStreamer's own text (blurbs): an assignment
# with quotes (crop="<160, 90, 960, 540>"), an array (<x, y, width, height>)
# or a quoted word ("trial:").
LAUNCH_SYNTAX = re.compile(r'[\w-]+="[^"]*"|<[^<>]*>|"[^"]*"')
CODE_SPAN = re.compile(r"(`[^`]*`)")


def as_code(text):
    """GStreamer's text for the manual: its gst-launch-1.0 syntax in code
    spans, so that markdown neither takes <x, y, width, height> for an HTML
    tag (which the browser hides) nor makes the quotes of crop="<...>"
    typographic (which breaks the command when pasted). Code spans already
    there are kept as they are."""
    parts = CODE_SPAN.split(text)
    return "".join(part if CODE_SPAN.fullmatch(part) else
                   LAUNCH_SYNTAX.sub(lambda m: f"`{m.group(0)}`", part) for part in parts)


def cell(text):
    """A table cell: one line, gst-launch-1.0 syntax as code, pipes escaped."""
    return as_code(" ".join(str(text).split())).replace("|", "\\|")


def when_settable(pspec):
    """In which states the property may be set, as GStreamer's flags say."""
    flags = int(pspec.flags)
    if not flags & int(GObject.ParamFlags.WRITABLE):
        return "read-only"
    if flags & int(Gst.PARAM_MUTABLE_PLAYING):
        return "any state"
    if flags & int(Gst.PARAM_MUTABLE_PAUSED):
        return "NULL to PAUSED"
    if flags & int(Gst.PARAM_MUTABLE_READY):
        return "NULL or READY"
    return "not stated"


def is_a(pspec, gtype):
    return GObject.type_is_a(pspec.value_type, gtype)


def enum_values(pspec):
    """value -> GEnumValue (value_nick) of an enum property. Debian 12's
    PyGObject gives the enum's Python type, Debian 13's the GEnumClass, which
    g_enum_get_value() reads."""
    klass = pspec.enum_class
    if hasattr(klass, "__enum_values__"):  # PyGObject 3.42: the Python type
        return {int(k): v for k, v in klass.__enum_values__.items()}
    values = {}
    for v in range(klass.minimum, klass.maximum + 1):
        value = GObject.enum_get_value(klass, v)
        if value is not None:
            values[v] = value
    return values


def default_and_range(pspec):
    """(default, range or values) as text."""
    if is_a(pspec, GObject.TYPE_ENUM):
        values = enum_values(pspec)
        default = values[int(pspec.default_value)].value_nick
        choices = ", ".join(f"`{v.value_nick}`" for _, v in sorted(values.items()))
        return f"`{default}`", choices
    if is_a(pspec, GObject.TYPE_BOOLEAN):
        return f"`{str(pspec.default_value).lower()}`", ""
    if is_a(pspec, GObject.TYPE_STRING):
        d = pspec.default_value
        return ("`" + d + "`" if d else "none"), ""
    if hasattr(pspec, "minimum") and hasattr(pspec, "maximum"):
        def num(v):
            if is_a(pspec, GObject.TYPE_DOUBLE):
                return "max" if v > 1e300 else f"{v:g}"
            if pspec.name == "fill-color" or pspec.value_type.name == "guint" and v == 0xFFFFFFFF:
                return f"0x{v:08x}"
            return "max" if v >= 2**31 - 1 else str(v)
        d = pspec.default_value
        dtext = f"0x{d:08x}" if pspec.name == "fill-color" else num(d)
        return f"`{dtext}`", f"{num(pspec.minimum)} – {num(pspec.maximum)}"
    return "none", ""


def properties(element, writable):
    rows = []
    for pspec in sorted(element.list_properties(), key=lambda p: p.name):
        if pspec.name in INHERITED:
            continue
        if bool(int(pspec.flags) & int(GObject.ParamFlags.WRITABLE)) != writable:
            continue
        default, span = default_and_range(pspec)
        rows.append((pspec, default, span))
    return rows


def property_table(rows, writable):
    if writable:
        out = ["| property | type | default | values | set in | description |",
               "|---|---|---|---|---|---|"]
    else:
        out = ["| property | type | description |", "|---|---|---|"]
    for pspec, default, span in rows:
        name, typ, blurb = f"`{pspec.name}`", pspec.value_type.name, cell(pspec.blurb)
        if writable:
            out.append(f"| {name} | {typ} | {cell(default)} | {cell(span)} | "
                       f"{when_settable(pspec)} | {blurb} |")
        else:
            out.append(f"| {name} | {typ} | {blurb} |")
    return out


def top_level_fields(text):
    """A caps structure's text split at the commas between its fields (not
    those inside a list, range or array)."""
    fields, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{[<(":
            depth += 1
        elif ch in "}]>)":
            depth -= 1
        elif ch == "," and depth == 0:
            fields.append(text[start:i].strip())
            start = i + 1
    fields.append(text[start:].strip())
    return fields


def pad_section(factory):
    out = []
    # Sink first, as gst-inspect-1.0 lists them on most versions.
    templates = sorted(factory.get_static_pad_templates(),
                       key=lambda t: t.direction != Gst.PadDirection.SINK)
    for t in templates:
        direction = "sink" if t.direction == Gst.PadDirection.SINK else "src"
        presence = t.presence.value_nick
        caps = t.get_caps()
        out.append(f"**{t.name_template}** ({direction}, {presence}):")
        out.append("")
        out.append("```")
        for i in range(caps.get_size()):
            s = caps.get_structure(i).to_string()
            feat = caps.get_features(i)
            if feat and not feat.is_any() and feat.to_string() != "memory:SystemMemory":
                s = s.replace(caps.get_structure(i).get_name(),
                              f"{caps.get_structure(i).get_name()}({feat.to_string()})", 1)
            out.append(",\n    ".join(top_level_fields(s.rstrip(";"))))
        out.append("```")
        out.append("")
    return out


def element_section(name):
    factory = Gst.ElementFactory.find(name)
    if factory is None or factory.get_plugin_name() != "ef":
        sys.exit(f"element_page.py: {name} is not in the plugin ef built here")
    element = factory.create(None)
    meta = factory.get_metadata
    out = [f"## {name}", "",
           f"*{meta('long-name')}* ({meta('klass')})", "",
           as_code(meta("description")), "",
           "### Pads", ""]
    out += pad_section(factory)
    settings = properties(element, writable=True)
    readouts = properties(element, writable=False)
    out += ["### Properties", ""] + property_table(settings, True) + [""]
    if readouts:
        out += ["### Read-only properties",
                "",
                "What the element is doing; its counters are the fields of `stats` "
                "(below).", ""]
        out += property_table(readouts, False) + [""]
    out += counter_section(element)
    return out


def counter_section(element):
    """The fields of the element's `stats` structure (their names from a new
    element's structure, what each counts from the property's blurb, which
    lists them as "name: text; name: text")."""
    pspec = element.find_property("stats")
    if pspec is None:
        return []
    stats = element.get_property("stats")
    names = [stats.nth_field_name(i) for i in range(stats.n_fields())]
    blurb = pspec.blurb
    intro, _, fields = blurb.partition("Fields: ")
    starts = [fields.find(f"{n}: ") for n in names]
    if not fields or -1 in starts or starts != sorted(starts):
        sys.exit(f"element_page.py: the stats blurb of {element.get_factory().get_name()} "
                 "does not list its fields in order (run with EF_STATS_BLURB=full)")
    out = ["### Statistics", "", cell(intro), "",
           "| counter | what it counts |", "|---|---|"]
    for i, name in enumerate(names):
        end = starts[i + 1] if i + 1 < len(names) else len(fields)
        text = fields[starts[i] + len(name) + 2:end].rstrip("; ")
        out.append(f"| `{name}` | {cell(text)} |")
    return out + [""]


def main():
    template, output = sys.argv[1:3]
    Gst.init(None)
    plugin = Gst.Registry.get().find_plugin("ef")
    if plugin is None:
        sys.exit("element_page.py: the plugin ef was not found (GST_PLUGIN_PATH_1_0)")
    lines = []
    for line in open(template, encoding="utf-8").read().splitlines():
        m = re.fullmatch(r"@ELEMENT (\S+)@", line.strip())
        if m:
            lines += element_section(m.group(1))
        else:
            lines.append(line.replace("@VERSION@", plugin.get_version()))
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


main()
