# Renders each page of PAGES from its template: each {{snippet PATH NAME}} is replaced by the region
# NAME of PATH (between "// snippet:NAME" and "// end-snippet", or "#" / "--" comments, dedented)
# and each {{file PATH}} by the whole file. ReadmeTest (outbox-examples) fails when a page is not
# what this makes of its template and the sources; it does the same substitution.
#   python3 docs/readme.py            write the pages
#   python3 docs/readme.py --check    fail if one is stale
import re, pathlib, sys
root = pathlib.Path(__file__).resolve().parent.parent
PAGES = [('docs/README.template.md', 'README.md'),
         ('docs/getting-started.template.md', 'docs/getting-started.md')]
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
def render(template):
    out = re.sub(r'\{\{snippet ([^ ]+) ([^}]+)\}\}', lambda m: snip(m.group(1), m.group(2)), template)
    return re.sub(r'\{\{file ([^}]+)\}\}', lambda m: whole(m.group(1)), out)
stale = []
for template, page in PAGES:
    out = render((root / template).read_text())
    if sys.argv[1:] == ['--check']:
        if not (root / page).exists() or (root / page).read_text() != out:
            stale.append(page)
    else:
        (root / page).write_text(out)
        print(page + ' written')
if stale:
    raise SystemExit(', '.join(stale) + ' stale: run python3 docs/readme.py')
if sys.argv[1:] == ['--check']:
    print('pages are up to date')
