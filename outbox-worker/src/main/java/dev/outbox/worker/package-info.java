/** The outbox worker (being built). */
@NullMarked
package dev.outbox.worker;

import org.jspecify.annotations.NullMarked;
