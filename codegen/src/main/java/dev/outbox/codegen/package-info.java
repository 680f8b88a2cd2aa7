/**
 * Build-time code generation: {@link dev.outbox.codegen.SchemaCodegen} applies the outbox Flyway
 * migrations to a live PostgreSQL (an embedded server unless {@code OUTBOX_CODEGEN_JDBC_URL} names
 * one) and runs jOOQ's generator over the result. Nothing here is used at run time.
 */
package dev.outbox.codegen;
