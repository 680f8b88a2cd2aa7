#!/usr/bin/env python3
"""Checks a CycloneDX SBOM of this build against the jars it describes.

    python3 docs/sbom-check.py outbox-relay-service/target/bom.json [outbox-relay-service/target/outbox-relay.jar]

1. Each component's SHA-256 in the SBOM equals that of the jar in the local Maven repository
   (~/.m2/repository, or $MAVEN_REPO): what the SBOM names is what the build used.
2. With a shaded jar: every class in it comes from the module's own jar or from a component the
   SBOM lists, and every component contributes to it: the SBOM lists exactly what the jar holds.
Exits 1, naming each mismatch.
"""
import hashlib, json, os, sys, zipfile
from urllib.parse import unquote

def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()

def classes(jar):
    with zipfile.ZipFile(jar) as z:
        return {n for n in z.namelist() if n.endswith('.class') and not n.endswith('module-info.class')}

def main(bom_path, shaded=None):
    repo = os.environ.get('MAVEN_REPO', os.path.expanduser('~/.m2/repository'))
    bom = json.load(open(bom_path))
    problems, jars = [], {}
    for c in bom.get('components', []):
        purl = c['purl']                       # pkg:maven/group/artifact@version?type=jar
        coords, _, query = purl[len('pkg:maven/'):].partition('?')
        group_artifact, _, version = coords.rpartition('@')
        group, artifact = unquote(group_artifact).split('/')
        qualifiers = dict(q.split('=', 1) for q in query.split('&') if q)
        classifier = '-' + qualifiers['classifier'] if 'classifier' in qualifiers else ''
        jar = os.path.join(repo, *group.split('.'), artifact, version,
                           f"{artifact}-{version}{classifier}.{qualifiers.get('type', 'jar')}")
        expected = next((h['content'] for h in c.get('hashes', []) if h['alg'] == 'SHA-256'), None)
        if not os.path.isfile(jar):
            problems.append(f'{purl}: no {jar}')
        elif expected is None:
            problems.append(f'{purl}: the SBOM gives no SHA-256')
        elif sha256(jar) != expected:
            problems.append(f'{purl}: SHA-256 {sha256(jar)} of {jar}, the SBOM says {expected}')
        else:
            jars[purl] = jar
    checked = len(jars)
    if shaded:
        inside = classes(shaded)
        own = os.path.join(os.path.dirname(shaded), bom['metadata']['component']['name'] + '-'
                           + bom['metadata']['component']['version'] + '.jar')
        covered = classes(own) if os.path.isfile(own) else set()
        for purl, jar in jars.items():
            theirs = classes(jar)
            if theirs and not theirs & inside:
                problems.append(f'{purl}: listed in the SBOM, but none of its classes is in {shaded}')
            covered |= theirs
        for name in sorted(inside - covered)[:20]:
            problems.append(f'{name}: in {shaded}, from no component of the SBOM')
    for p in problems:
        print(p)
    print(f"{checked} of {len(bom.get('components', []))} components match their jars"
          + (f"; {shaded} checked against them" if shaded else '') + ('' if not problems else f'; {len(problems)} problems'))
    return 1 if problems else 0

if __name__ == '__main__':
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
