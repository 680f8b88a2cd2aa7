import re, pathlib
root = pathlib.Path(__file__).resolve().parent.parent
def snip(path, name):
    text = (root / path).read_text()
    m = re.search(r'// snippet:' + re.escape(name) + r'\n(.*?)\n[ \t]*// end-snippet', text, re.S)
    if not m:
        raise SystemExit('no snippet ' + name + ' in ' + path)
    lines = m.group(1).split('\n')
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return '\n'.join(l[indent:] for l in lines)
tpl = (root / 'docs/README.template.md').read_text()
def repl(m):
    return snip(m.group(1), m.group(2))
out = re.sub(r'\{\{snippet ([^ ]+) ([^}]+)\}\}', repl, tpl)
(root / 'README.md').write_text(out)
print('README.md written')
