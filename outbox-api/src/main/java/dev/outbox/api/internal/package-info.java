/**
 * The recording API's implementation, not an API: its optional meters (Micrometer) and the trace
 * context it takes from the current OpenTelemetry span, each behind a small interface whose default
 * needs neither library on the class path.
 */
@NullMarked
package dev.outbox.api.internal;

import org.jspecify.annotations.NullMarked;
