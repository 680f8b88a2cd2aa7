#!/usr/bin/env bash
# Follows docs/getting-started.md in an empty directory, as a user would: installs our
# artifacts, writes every file the page names out of docs/getting-started.md (not out of outbox-examples/),
# builds the three projects with Maven and runs them against a PostgreSQL database and a RabbitMQ
# of the machine: record -> relay -> worker completes, first with outbox-relay.jar, then with the
# relay embedded (RelayApp).
#
#   docs/getting-started-check.sh [work directory, default /tmp/outbox-gs]
#
# What it does that the page does not say, and why:
# - Maven runs with -Dmaven.repo.local=$GS_M2 (default /tmp/gs-m2, seeded once by copying
#   ~/.m2/repository): the install must not touch the ~/.m2 other builds share.
# - the queue "emails" becomes "gs-emails-<run>" in routes.yaml and JobService.java, so the check
#   never meets another program's queue on a shared broker; the queue is deleted at the end.
# - the database is one of its own ($GS_DB, default outbox_gs), dropped and created afresh.
# - the page's sample values for JDBC_URL, AMQP_URI, OUTBOX_* are replaced by this machine's.
# Gradle: the build.gradle.kts files are written as the page gives them, and built only when a
# `gradle` command is on the PATH.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/outbox-gs}
m2=${GS_M2:-/tmp/gs-m2}
pg_host=${GS_PG_HOST:-127.0.0.1}
pg_user=${GS_PG_USER:-postgres}
db=${GS_DB:-outbox_gs}
amqp=${GS_AMQP_URI:-amqp://guest:guest@127.0.0.1:5672/%2F}
run=$(date +%s)
queue=gs-emails-$run
pids=()

say() { printf 'gs: %s\n' "$*"; }
fail() { say "FAILED: $*"; exit 1; }
cleanup() {
    for pid in "${pids[@]:-}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    if command -v rabbitmqctl >/dev/null; then
        rabbitmqctl -q delete_queue "$queue" >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT

# wait_for <file> <text> <seconds>
wait_for() {
    local i
    for ((i = 0; i < $3; i++)); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 1
    done
    say "no '$2' in $1 after $3 s:"; tail -20 "$1"; return 1
}

# stop <pid>: SIGTERM, as an operator would, then wait for the process
stop() {
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$1" 2>/dev/null || return 0; sleep 1; done
    kill -KILL "$1" 2>/dev/null || true
}

# ------------------------------------------------------------------ our artifacts (docs/getting-started.md: ./mvnw -B -DskipTests install)
if [ ! -d "$m2" ]; then
    say "seeding the private Maven repository $m2 from ~/.m2/repository"
    mkdir -p "$m2" && cp -r "$HOME/.m2/repository/." "$m2/"
fi
say "installing our artifacts into $m2"
(cd "$repo" && ./mvnw -B -q -DskipTests install -Dmaven.repo.local="$m2" -Dkotlin.compiler.daemon=false) > "$work.install.log" 2>&1 \
    || { tail -30 "$work.install.log"; fail "./mvnw install"; }
[ -f "$repo/outbox-relay-service/target/outbox-relay.jar" ] || fail "no outbox-relay-service/target/outbox-relay.jar after the install"

# ------------------------------------------------------------------ the files, out of docs/getting-started.md
rm -rf "$work" && mkdir -p "$work"
python3 - "$repo/docs/getting-started.md" "$work" <<'EOF'
import pathlib, re, sys
readme, work = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2])
section = readme[readme.index('\n## The three projects\n'):]
section = section[:section.index('\n## ', 1)]
written = []
# a fenced block is the whole of the file its paragraph names ("File `x`:", "and file `x`:");
# "in file `x`" introduces a part of a file, which the script applies itself (below)
for m in re.finditer(r'((?:[^\n]+\n)+)\n```[a-z]*\n(.*?)```\n', section, re.S):
    paragraph, body = m.group(1), m.group(2)
    names = re.findall(r'(?<!in )[Ff]ile `([^`]+)`', paragraph)
    if names and paragraph.rstrip().endswith(':'):
        path = work / names[-1]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        written.append(names[-1])
print('\n'.join('gs: wrote ' + w for w in written))
EOF

# The job service: "the application's build files with outbox-worker instead of outbox-api, the
# names jobs and com.example.jobs.JobService"; the embedded relay likewise with outbox-relay and
# com.example.relay.RelayApp, and routes.yaml in its working directory.
derive() { # derive <project> <artifact> <main class>
    mkdir -p "$work/$1"
    sed -e "s|<artifactId>orders-app</artifactId>|<artifactId>$1</artifactId>|" \
        -e "s|<artifactId>outbox-api</artifactId>|<artifactId>$2</artifactId>|" \
        -e "s|com.example.orders.OrdersApp|$3|" "$work/orders-app/pom.xml" > "$work/$1/pom.xml"
    sed -e "s|\"orders-app\"|\"$1\"|" "$work/orders-app/settings.gradle.kts" > "$work/$1/settings.gradle.kts"
    sed -e "s|\"dev.outbox:outbox-api\")|\"dev.outbox:$2\")|" \
        -e "s|com.example.orders.OrdersApp|$3|" "$work/orders-app/build.gradle.kts" > "$work/$1/build.gradle.kts"
    grep -q "<artifactId>$2</artifactId>" "$work/$1/pom.xml" || fail "$1/pom.xml: no $2"
    grep -q "dev.outbox:$2\"" "$work/$1/build.gradle.kts" || fail "$1/build.gradle.kts: no $2"
}
derive jobs outbox-worker com.example.jobs.JobService
derive relay-embedded outbox-relay com.example.relay.RelayApp
cp "$work/relay/routes.yaml" "$work/relay-embedded/routes.yaml"
for f in relay/routes.yaml relay-embedded/routes.yaml; do sed -i "s|queue: emails|queue: $queue|" "$work/$f"; done
sed -i "s|\"emails\"|\"$queue\"|" "$work/jobs/src/main/java/com/example/jobs/JobService.java"
grep -q "$queue" "$work/jobs/src/main/java/com/example/jobs/JobService.java" || fail "JobService.java: no queue \"emails\" to rename"
(cd "$work" && find . -type f | sort | sed 's/^/gs: file /')

# ------------------------------------------------------------------ the database
dropdb -h "$pg_host" -U "$pg_user" --if-exists "$db"
createdb -h "$pg_host" -U "$pg_user" "$db"
export JDBC_URL="jdbc:postgresql://$pg_host:5432/$db" JDBC_USER="$pg_user" JDBC_PASSWORD="${GS_PG_PASSWORD:-}"
export AMQP_URI="$amqp"
mvn_() { mvn -B -q -Dmaven.repo.local="$m2" "$@"; }

# ------------------------------------------------------------------ build the four projects
for p in orders-app jobs relay-embedded; do
    say "mvn compile in $p"
    (cd "$work/$p" && mvn_ compile) > "$work/$p.build.log" 2>&1 || { tail -30 "$work/$p.build.log"; fail "mvn compile in $p"; }
done
if command -v gradle >/dev/null; then
    for p in orders-app jobs relay-embedded; do
        say "gradle classes in $p"
        (cd "$work/$p" && gradle -q -Dmaven.repo.local="$m2" classes) || fail "gradle classes in $p"
    done
else
    say "gradle is not on the PATH: the build.gradle.kts files were written but not built"
fi

# ------------------------------------------------------------------ 1. application, relay service, job service
say "orders-app: mvn -q compile exec:java"
(cd "$work/orders-app" && mvn_ compile exec:java) > "$work/orders-1.log" 2>&1 || { cat "$work/orders-1.log"; fail "orders-app"; }
grep "placed" "$work/orders-1.log" | sed 's/^/gs: orders-app: /'

cp "$repo/outbox-relay-service/target/outbox-relay.jar" "$work/relay/"
relay_env=(OUTBOX_JDBC_URL="$JDBC_URL" OUTBOX_JDBC_USER="$JDBC_USER" OUTBOX_JDBC_PASSWORD="$JDBC_PASSWORD"
    OUTBOX_AMQP_URI="$AMQP_URI" OUTBOX_ROUTES_FILE=routes.yaml)
say "relay: java -jar outbox-relay.jar relay --loop"
(cd "$work/relay" && exec env "${relay_env[@]}" java -jar outbox-relay.jar relay --loop) > "$work/relay.log" 2>&1 &
relay=$!; pids+=("$relay")

say "jobs: mvn -q compile exec:java"
(cd "$work/jobs" && exec mvn -B -q -Dmaven.repo.local="$m2" compile exec:java) > "$work/jobs-1.log" 2>&1 &
jobs_pid=$!; pids+=("$jobs_pid")
wait_for "$work/jobs-1.log" "confirmation e-mail for order 1 sent" 120 || fail "the job service did not run the job of order 1"
grep "confirmation" "$work/jobs-1.log" | sed 's/^/gs: jobs: /'
sleep 2 # the outcome's commit comes right after the handler returns
(cd "$work/relay" && env "${relay_env[@]}" java -jar outbox-relay.jar status) > "$work/status-1.txt" 2>&1
sed 's/^/gs: status: /' "$work/status-1.txt"
grep -Eq "^total +0 +0 +[0-9]+s +0 +1 +0" "$work/status-1.txt" || fail "status does not count one completed delivery"
stop "$relay"; say "relay stopped on SIGTERM"

# ------------------------------------------------------------------ 2. the same with the relay embedded
say "orders-app again: mvn -q compile exec:java"
(cd "$work/orders-app" && mvn_ compile exec:java) > "$work/orders-2.log" 2>&1 || { cat "$work/orders-2.log"; fail "orders-app, second run"; }
grep "placed" "$work/orders-2.log" | sed 's/^/gs: orders-app: /'
say "relay-embedded: mvn -q compile exec:java"
(cd "$work/relay-embedded" && exec mvn -B -q -Dmaven.repo.local="$m2" compile exec:java) > "$work/relay-embedded.log" 2>&1 &
embedded=$!; pids+=("$embedded")
wait_for "$work/jobs-1.log" "confirmation e-mail for order 2 sent" 120 || fail "the job service did not run the job of order 2"
grep "order 2" "$work/jobs-1.log" | sed 's/^/gs: jobs: /'
sleep 2
(cd "$work/relay" && env "${relay_env[@]}" java -jar outbox-relay.jar status) > "$work/status-2.txt" 2>&1
sed 's/^/gs: status: /' "$work/status-2.txt"
grep -Eq "^total +0 +0 +[0-9]+s +0 +2 +0" "$work/status-2.txt" || fail "status does not count two completed deliveries"
stop "$embedded"; stop "$jobs_pid"; say "embedded relay and job service stopped on SIGTERM"
say "OK: recorded, relayed (service jar, then embedded) and completed, as docs/getting-started.md says"
