package dev.outbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * outbox-bom is what applications import: our published artifacts at the reactor's version, no
 * parent (whose dependencyManagement an import would bring along), no other library; README.md and
 * docs/getting-started.md tell users to import it.
 */
class BomTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final List<String> PUBLISHED = List.of(
            "outbox-flyway",
            "outbox-schema",
            "outbox-api",
            "outbox-delivery",
            "outbox-relay",
            "outbox-relay-service",
            "outbox-worker",
            "outbox-admin",
            "outbox-kotlin",
            "outbox-testkit",
            "outbox-spring",
            "outbox-spring-boot-autoconfigure",
            "outbox-spring-boot-starter",
            "outbox-spring-boot3-health");

    private static Document pom(String path) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(ROOT.resolve(path).toFile());
    }

    private static String child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                return c.getTextContent().trim();
            }
        }
        return "";
    }

    @Test
    void managesExactlyOurPublishedArtifactsAtTheReactorsVersionAndHasNoParent() throws Exception {
        Document bom = pom("outbox-bom/pom.xml");
        Element project = bom.getDocumentElement();

        assertThat(project.getElementsByTagName("parent").getLength())
                .as("a parent's dependencyManagement would leak")
                .isZero();
        assertThat(child(project, "version")).isEqualTo(child(pom("pom.xml").getDocumentElement(), "version"));
        NodeList deps = project.getElementsByTagName("dependency");
        List<String> managed = new ArrayList<>();
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            assertThat(child(d, "groupId")).isEqualTo("dev.outbox");
            assertThat(child(d, "version")).isEqualTo("${project.version}");
            assertThat(child(d, "scope")).as("no import of another BOM").isEmpty();
            managed.add(child(d, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(PUBLISHED);
        assertThat(reactorArtifacts())
                .as("each published artifact is built by the reactor")
                .containsAll(PUBLISHED);
    }

    /** The artifactIds of the root POM's modules (a module's folder may differ from its artifactId). */
    private static List<String> reactorArtifacts() throws Exception {
        NodeList modules = pom("pom.xml").getDocumentElement().getElementsByTagName("module");
        List<String> artifacts = new ArrayList<>();
        for (int i = 0; i < modules.getLength(); i++) {
            String folder = modules.item(i).getTextContent().trim();
            artifacts.add(child(pom(folder + "/pom.xml").getDocumentElement(), "artifactId"));
        }
        return artifacts;
    }

    @Test
    void theGettingStartedImportsTheBomAndNotTheParent() throws Exception {
        String page = Files.readString(ROOT.resolve("docs/getting-started.md"));
        String readme = Files.readString(ROOT.resolve("README.md"));

        assertThat(page)
                .contains("<artifactId>outbox-bom</artifactId>")
                .doesNotContain("<artifactId>outbox-parent</artifactId>");
        assertThat(readme).contains("`outbox-bom`").doesNotContain("<artifactId>outbox-parent</artifactId>");
    }
}
