# README.md = docs/README.template.md with each {{snippet PATH NAME}} replaced by the region NAME of
# PATH (between "// snippet:NAME" and "// end-snippet", or "#" / "--" comments, dedented) and each
# {{file PATH}} by the whole file. ReadmeTest (outbox-examples) fails when README.md is not what
# this makes of the template and the sources; it does the same substitution.
import re, pathlib, sys
root = pathlib.Path(__file__).resolve().parent.parent
def snip(path, name):
    text = (root / path).read_text()
    m = re.search(r'(?://|#|--) snippet:' + re.escape(name) + r'\n(.*?)\n[ \t]*(?://|#|--) end-snippet', text, re.S)
    if not m:
        raise SystemExit('no snippet ' + name + ' in ' + path)
    lines = m.group(1).split('\n')
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return '\n'.join(l[indent:] for l in lines)
def whole(path):
    return (root / path).read_text().rstrip('\n')
tpl = (root / 'docs/README.template.md').read_text()
out = re.sub(r'\{\{snippet ([^ ]+) ([^}]+)\}\}', lambda m: snip(m.group(1), m.group(2)), tpl)
out = re.sub(r'\{\{file ([^}]+)\}\}', lambda m: whole(m.group(1)), out)
if sys.argv[1:] == ['--check']:
    if (root / 'README.md').read_text() != out:
        raise SystemExit('README.md is stale: run python3 docs/readme.py')
    print('README.md is up to date')
else:
    (root / 'README.md').write_text(out)
    print('README.md written')
