/** The default consent disclosure in Turkish, one entry per paragraph (see ../consent-text.ts). */
export const tr: readonly string[] = [
  'Elektronik kayıt ve imza kullanımına onay',
  'Bu belgenin göndereni, belgeyi size elektronik ortamda iletmek ve imzanızı elektronik olarak almak istiyor. Devam etmeden önce lütfen aşağıdaki bilgileri okuyun.',
  'Kâğıt nüsha. Bu belgeyi bunun yerine kâğıt üzerinde alma hakkına sahipsiniz. Kâğıt nüsha talep etmek için elinizdeki iletişim bilgileri aracılığıyla gönderene başvurun; gönderen, önceden bildirmesi kaydıyla makul bir ücret talep edebilir. İmzaladıktan sonra tamamlanan belge size e-posta ile gönderilir ve belgeyi yazdırabilirsiniz.',
  'Onayınızı geri çekme. Elektronik ortamda işlem yapmaya ilişkin onayınızı, imzalamadan önce istediğiniz zaman bu sayfada “Kabul etmiyorum” seçeneğini seçerek veya gönderene bildirerek geri çekebilirsiniz. Onayınızı geri çekmeniz bu elektronik imza talebini sona erdirir: Belge reddedilir ve gönderenin belgeyi size kâğıt üzerinde veya başka bir yolla sunması gerekir. Onayın geri çekilmesi, daha önce elektronik olarak imzaladığınız hiçbir şeyin hukuki geçerliliğini etkilemez.',
  'Kapsam. Onayınız bu belgeyi ve bu belgeyle ilgili olarak size e-posta ile gönderdiğimiz bildirimleri kapsar.',
  'Donanım ve yazılım. İnternet erişimi olan bir cihaz, JavaScript’i etkin güncel bir web tarayıcısı (örneğin Chrome, Edge, Firefox veya Safari’nin yeni bir sürümü), bir e-posta hesabı ve PDF dosyalarını görüntüleyip kaydetme veya yazdırma imkânı gerekir.',
  'İletişim bilgilerinizin güncel tutulması. E-posta adresiniz veya diğer iletişim bilgileriniz değişirse, bu belgeyle ilgili olarak size ulaşabilmesi için gönderene bildirin.',
  '“Kabul ediyorum” seçeneğini seçerek bu bilgilendirmeye ve PDF biçimindeki belgelere erişip bunları okuyabildiğinizi ve bu belge için elektronik kayıt ve imza kullanımına onay verdiğinizi teyit etmiş olursunuz.',
];
