/** The outbox relay (being built). */
@NullMarked
package dev.outbox.relay;

import org.jspecify.annotations.NullMarked;
