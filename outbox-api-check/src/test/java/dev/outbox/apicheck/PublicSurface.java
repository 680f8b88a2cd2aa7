package dev.outbox.apicheck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public surface of some packages, as text: for every public or protected type (nested ones too,
 * when every enclosing type is accessible) one line with its modifiers, kind and supertypes, then one
 * indented line per public or protected constructor, method and field it declares, in their generic
 * form ({@link Method#toGenericString()}). Lines are sorted, so the text changes only when the surface
 * does. Annotations (e.g. JSpecify's {@code @Nullable}) are not part of it.
 */
final class PublicSurface {

    private PublicSurface() {}

    /** The surface of {@code packages}, each read from the jar or folder that holds its {@code package-info}. */
    static String of(List<String> packages) {
        StringBuilder text = new StringBuilder();
        for (String pkg : packages) {
            text.append("package ").append(pkg).append('\n');
            for (Class<?> type : types(pkg)) {
                text.append(describe(type)).append('\n');
                members(type).forEach(m -> text.append("    ").append(m).append('\n'));
            }
            text.append('\n');
        }
        return text.toString();
    }

    private static List<Class<?>> types(String pkg) {
        Class<?> anchor;
        try {
            anchor = Class.forName(pkg + ".package-info", false, PublicSurface.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    pkg + ": no package-info class on the class path (every package has one, STYLE.md)", e);
        }
        CodeSource source = anchor.getProtectionDomain().getCodeSource();
        TreeMap<String, Class<?>> types = new TreeMap<>();
        try {
            Path location = Path.of(source.getLocation().toURI());
            if (Files.isDirectory(location)) {
                collect(location.resolve(pkg.replace('.', '/')), pkg, types);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(location)) {
                    collect(jar.getPath(pkg.replace('.', '/')), pkg, types);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return new ArrayList<>(types.values());
    }

    private static void collect(Path dir, String pkg, TreeMap<String, Class<?>> types) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                if (!file.endsWith(".class") || file.equals("package-info.class")) {
                    continue;
                }
                Class<?> type;
                try {
                    type = Class.forName(
                            pkg + "." + file.substring(0, file.length() - ".class".length()),
                            false,
                            PublicSurface.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(e);
                }
                if (visible(type)) {
                    types.put(type.getName(), type);
                }
            }
        }
    }

    private static boolean visible(Class<?> type) {
        if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!accessible(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean accessible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static String describe(Class<?> type) {
        StringBuilder line = new StringBuilder(type.toGenericString());
        if (type.isSealed()) {
            line.insert(line.indexOf(kind(type)), "sealed ");
        }
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
            line.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0) {
            line.append(type.isInterface() ? " extends " : " implements ")
                    .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        if (type.isSealed()) {
            line.append(" permits ")
                    .append(Arrays.stream(type.getPermittedSubclasses())
                            .map(Class::getName)
                            .collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    private static String kind(Class<?> type) {
        return type.isAnnotation()
                ? "@interface"
                : type.isInterface() ? "interface" : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
    }

    private static List<String> members(Class<?> type) {
        TreeSet<String> members = new TreeSet<>();
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            add(members, c, c.toGenericString());
        }
        for (Method m : type.getDeclaredMethods()) {
            if (!m.isBridge()) {
                add(members, m, m.toGenericString());
            }
        }
        for (Field f : type.getDeclaredFields()) {
            add(members, f, f.toGenericString() + constant(f));
        }
        return new ArrayList<>(members);
    }

    private static void add(TreeSet<String> members, Member member, String text) {
        if (!member.isSynthetic()
                && accessible(member.getModifiers())
                && !(member instanceof Executable e && e.isSynthetic())) {
            members.add(text);
        }
    }

    /** The value of a public constant of a primitive or String type: changing it changes the API. */
    private static String constant(Field f) {
        int m = f.getModifiers();
        if (!Modifier.isStatic(m)
                || !Modifier.isFinal(m)
                || !(f.getType().isPrimitive() || f.getType() == String.class)) {
            return "";
        }
        try {
            Object value = f.get(null);
            return " = " + (value instanceof String s ? '"' + s + '"' : value);
        } catch (IllegalAccessException e) {
            return "";
        }
    }
}
