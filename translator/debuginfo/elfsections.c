/* elfsections.c - what tapc reads of a kernel image's or module's ELF
 * sections: the .BTF section and the GNU build-id note, from a file
 * (packed or not) or from memory. */
#include "elfsections.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *hex_of(const unsigned char *p, size_t n)
{
	char *s = xalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	return s;
}

const char *build_id_in_notes(const unsigned char *p, size_t len)
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		size_t next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (desc_off > len || next > len || next <= off)
			return NULL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && descsz > 0)
			return hex_of(p + desc_off, descsz);
		off = next;
	}
	return NULL;
}

const char *build_id_of_notes_file(const char *path)
{
	Bytes b;
	if (!read_bytes(path, &b))
		return NULL;
	const char *id = build_id_in_notes(b.data, b.len);
	bytes_free(&b);
	return id;
}

/* false (with *why) when e is not an ELF file libelf can read. */
static bool elf_btf(Elf *e, ElfBtf *out, const char **why)
{
	memset(out, 0, sizeof *out);
	size_t shstrndx;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
		*why = xsprintf(_("not an ELF file (%s)"), elf_errmsg(-1));
		return false;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_NOTE && !out->build_id) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Nhdr nh;
			size_t off = 0, name_off, desc_off;
			while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
				    nh.n_descsz > 0) {
					out->build_id = hex_of((unsigned char *)d->d_buf + desc_off,
							       nh.n_descsz);
					break;
				}
			}
		} else if (name && !strcmp(name, ".BTF") && sh.sh_type != SHT_NOBITS &&
			   !out->btf.data) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (d && d->d_size) {
				out->btf.data = xrealloc_heap(NULL, d->d_size);
				memcpy(out->btf.data, d->d_buf, d->d_size);
				out->btf.len = d->d_size;
			}
		}
	}
	return true;
}

bool elf_btf_of_memory(Bytes *image, ElfBtf *out, const char **why)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)image->data, image->len);
	bool ok = elf_btf(e, out, why);
	if (e)
		elf_end(e);
	return ok;
}

bool elf_btf_of_packed(const unsigned char *data, size_t len, size_t size_hint,
		       ElfBtf *out, const char **why)
{
	Bytes image;
	const char *err = unpack(data, len, size_hint, &image);
	if (err) {
		*why = err;
		return false;
	}
	bool ok = elf_btf_of_memory(&image, out, why);
	bytes_free(&image);
	return ok;
}

bool elf_btf_of_file(const char *path, ElfBtf *out, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = xsprintf("%s: %s", path, strerror(errno));
		return false;
	}
	unsigned char magic[8] = { 0 };
	ssize_t n = pread(fd, magic, sizeof magic, 0);
	if (n >= SELFMAG && !memcmp(magic, ELFMAG, SELFMAG)) {
		/* as it is, and maybe big (a vmlinux with DWARF): mapped */
		elf_version(EV_CURRENT);
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		bool ok = elf_btf(e, out, why);
		if (e)
			elf_end(e);
		close(fd);
		if (!ok)
			*why = xsprintf("%s: %s", path, *why);
		return ok;
	}
	close(fd);
	Bytes packed;
	if (!read_bytes(path, &packed)) {
		*why = xsprintf("%s: %s", path, strerror(errno));
		return false;
	}
	bool ok = elf_btf_of_packed(packed.data, packed.len, 0, out, why);
	bytes_free(&packed);
	if (!ok)
		*why = xsprintf("%s: %s", path, *why);
	return ok;
}
