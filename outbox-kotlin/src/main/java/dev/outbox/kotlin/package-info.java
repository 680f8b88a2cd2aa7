/**
 * Kotlin beside the Java API: {@code KotlinEventSerializer} (jackson-module-kotlin set up for data
 * classes, nullable types and {@code kotlin.time.Duration}, for both {@code Outbox.builder()} and
 * {@code OutboxWorker.builder()}), a reified {@code handler<T>(jobType) { event, context -> }} on
 * the worker's builder, and routes and retry delays in {@code kotlin.time.Duration}. Each helper
 * delegates to the Java API; the Kotlin sources are in {@code src/main/kotlin}. (A Java file because
 * Kotlin writes no {@code package-info} class.)
 */
@NullMarked
package dev.outbox.kotlin;

import org.jspecify.annotations.NullMarked;
